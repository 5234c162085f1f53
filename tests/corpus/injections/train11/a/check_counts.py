#!/usr/bin/env python3
"""Check the train11/a training files.

* Payload files (<lang>.txt): 3 header lines starting with "# ", then lines
  "class<TAB>payload". Each payload line must contain exactly one TAB and a
  known class. Prints counts per class and per file.
* benign.txt: counts "=== " blocks, in total and per language (the language of
  each block is guessed from its script, which is enough for this file).
Exit status is non-zero on any format error or unexpected count.
"""
import re
import sys
from collections import Counter, OrderedDict
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGS = ["zh", "zh-hant", "ko", "ja", "vi", "id", "hi", "ar", "he", "tr"]
CLASSES = ["paraphrase", "output", "polite", "supply", "exfil", "conceal", "operator"]
PER_CLASS = 10
BENIGN_PER_LANG = 20

SIMP = set("这们说里档据设个与为时后会发资体过还开关经对应从来请让将条点变单产员号机网线无权录验码认证库误决测试镜览")
TRAD = set("這們說裡檔據設個與為時後會發資體過還開關經對應從來請讓將條點變單產員號機網線無權錄驗碼認證庫誤決測試鏡覽")


def guess_lang(text):
    if re.search(r"[\uac00-\ud7af]", text):
        return "ko"
    if re.search(r"[\u3040-\u30ff]", text):
        return "ja"
    if re.search(r"[\u0590-\u05ff]", text):
        return "he"
    if re.search(r"[\u0600-\u06ff]", text):
        return "ar"
    if re.search(r"[\u0900-\u097f]", text):
        return "hi"
    if re.search(r"[\u4e00-\u9fff]", text):
        s = sum(ch in SIMP for ch in text)
        t = sum(ch in TRAD for ch in text)
        return "zh-hant" if t > s else "zh"
    if re.search(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", text.lower()):
        return "vi"
    if re.search(r"[şğıİçöü]", text):
        return "tr"
    return "id"


def check_payloads():
    errors = 0
    total = Counter()
    print(f"{'file':14}" + "".join(f"{c:>11}" for c in CLASSES) + f"{'total':>8}")
    for lang in LANGS:
        path = HERE / f"{lang}.txt"
        lines = path.read_text(encoding="utf-8").splitlines()
        header = lines[:3]
        if len(header) != 3 or not all(h.startswith("# ") for h in header):
            print(f"ERROR {path.name}: the first 3 lines must start with '# '")
            errors += 1
        counts = Counter()
        for n, line in enumerate(lines[3:], start=4):
            if not line.strip():
                continue
            if line.count("\t") != 1:
                print(f"ERROR {path.name}:{n}: expected exactly one TAB, found {line.count(chr(9))}")
                errors += 1
                continue
            cls, payload = line.split("\t")
            if cls not in CLASSES:
                print(f"ERROR {path.name}:{n}: unknown class {cls!r}")
                errors += 1
                continue
            if not payload.strip():
                print(f"ERROR {path.name}:{n}: empty payload")
                errors += 1
                continue
            counts[cls] += 1
        for c in CLASSES:
            if counts[c] != PER_CLASS:
                print(f"ERROR {path.name}: class {c} has {counts[c]} payloads, expected {PER_CLASS}")
                errors += 1
        total.update(counts)
        print(f"{path.name:14}" + "".join(f"{counts[c]:>11}" for c in CLASSES) + f"{sum(counts.values()):>8}")
    print(f"{'TOTAL':14}" + "".join(f"{total[c]:>11}" for c in CLASSES) + f"{sum(total.values()):>8}")
    return errors, sum(total.values())


def check_benign():
    errors = 0
    path = HERE / "benign.txt"
    lines = path.read_text(encoding="utf-8").splitlines()
    if not all(h.startswith("# ") for h in lines[:3]):
        print("ERROR benign.txt: the first 3 lines must start with '# '")
        errors += 1
    blocks = []
    cur = None
    for line in lines[3:]:
        if line.startswith("=== "):
            cur = [line[4:].strip(), []]
            blocks.append(cur)
        elif cur is not None and line.strip():
            cur[1].append(line)
    per_lang = OrderedDict((l, 0) for l in LANGS)
    for title, body in blocks:
        if not title or not body:
            print(f"ERROR benign.txt: block {title!r} has no title or no text")
            errors += 1
        per_lang[guess_lang(title + " " + " ".join(body))] += 1
    print(f"\nbenign.txt: {len(blocks)} '===' blocks")
    print("  per language (guessed from script): " + ", ".join(f"{l} {n}" for l, n in per_lang.items()))
    for l, n in per_lang.items():
        if n != BENIGN_PER_LANG:
            print(f"ERROR benign.txt: {l} has {n} blocks, expected {BENIGN_PER_LANG}")
            errors += 1
    if len(blocks) != BENIGN_PER_LANG * len(LANGS):
        errors += 1
    return errors, len(blocks)


def main():
    e1, npay = check_payloads()
    e2, nben = check_benign()
    if e1 or e2:
        print(f"\nFAILED with {e1 + e2} error(s)")
        return 1
    print(f"\nOK: {npay} payloads in {len(LANGS)} files, {nben} benign blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
