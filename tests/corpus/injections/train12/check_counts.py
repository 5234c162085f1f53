#!/usr/bin/env python3
"""Check the train12 files: payload format, class counts, benign block counts."""
import sys
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGS = ["ja", "zh", "zh-hant", "ko", "es", "pt", "fr", "en"]
CLASSES = ["paraphrase", "supply", "exfil", "conceal", "polite", "roleplay", "override"]
PER_CLASS = 12
BENIGN_PER_LANG = 30

errors = []
total = Counter()
seen = {}
print(f"{'file':<13}" + "".join(f"{c:>11}" for c in CLASSES) + f"{'total':>8}")
for lang in LANGS:
    path = HERE / f"{lang}.txt"
    lines = path.read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 3 or not all(l.startswith("# ") for l in lines[:3]):
        errors.append(f"{path.name}: first 3 lines must start with '# '")
    counts = Counter()
    for n, line in enumerate(lines[3:], start=4):
        if line.count("\t") != 1:
            errors.append(f"{path.name}:{n}: expected exactly one TAB")
            continue
        cls, payload = line.split("\t")
        if cls not in CLASSES:
            errors.append(f"{path.name}:{n}: unknown class {cls!r}")
            continue
        if not payload.strip():
            errors.append(f"{path.name}:{n}: empty payload")
        if payload in seen:
            errors.append(f"{path.name}:{n}: duplicate of {seen[payload]}")
        seen[payload] = f"{path.name}:{n}"
        counts[cls] += 1
    for c in CLASSES:
        if counts[c] != PER_CLASS:
            errors.append(f"{path.name}: {c} has {counts[c]}, expected {PER_CLASS}")
    total.update(counts)
    print(f"{path.name:<13}" + "".join(f"{counts[c]:>11}" for c in CLASSES) + f"{sum(counts.values()):>8}")
print(f"{'total':<13}" + "".join(f"{total[c]:>11}" for c in CLASSES) + f"{sum(total.values()):>8}")

benign = (HERE / "benign.txt").read_text(encoding="utf-8").split("\n")
if not all(l.startswith("# ") for l in benign[:3]):
    errors.append("benign.txt: first 3 lines must start with '# '")
blocks = [l for l in benign if l.startswith("=== ")]
empty = 0
for i, l in enumerate(benign):
    if l.startswith("=== ") and (i + 1 >= len(benign) or not benign[i + 1].strip()):
        empty += 1
if empty:
    errors.append(f"benign.txt: {empty} block(s) without text")
expected_blocks = BENIGN_PER_LANG * len(LANGS)
print(f"benign.txt: {len(blocks)} blocks (expected {expected_blocks})")
if len(blocks) != expected_blocks:
    errors.append(f"benign.txt: {len(blocks)} blocks, expected {expected_blocks}")

if errors:
    print("\n".join(["ERRORS:"] + errors))
    sys.exit(1)
print("OK")
