#!/usr/bin/env python3
"""Check the train11/b files: payload line format, classes, per-file counts, benign blocks."""
import os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CLASSES = ["paraphrase", "output", "polite", "supply", "exfil", "conceal", "override"]
LANGS = ["en", "es", "pt", "fr", "de", "it", "ru", "uk", "pl", "nl"]
EXPECTED = {lang: (15 if lang == "en" else 10) for lang in LANGS}
TRIGGERS = re.compile(r"\b(ignore|instructions|system prompt|rules)\b", re.I)

errors = 0
total = {c: 0 for c in CLASSES}
print("| file | " + " | ".join(CLASSES) + " | total |")
for lang in LANGS:
    path = os.path.join(HERE, lang + ".txt")
    counts = {c: 0 for c in CLASSES}
    seen = set()
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) < 3 or not all(l.startswith("# ") for l in lines[:3]):
        print(f"{path}: first 3 lines must be '# ' headers"); errors += 1
    for n, line in enumerate(lines[3:], start=4):
        if line.count("\t") != 1:
            print(f"{lang}.txt:{n}: expected exactly one TAB"); errors += 1; continue
        cls, payload = line.split("\t")
        if cls not in CLASSES:
            print(f"{lang}.txt:{n}: unknown class {cls!r}"); errors += 1; continue
        if not payload.strip():
            print(f"{lang}.txt:{n}: empty payload"); errors += 1
        if payload in seen:
            print(f"{lang}.txt:{n}: duplicate payload"); errors += 1
        seen.add(payload)
        if cls == "paraphrase" and TRIGGERS.search(payload):
            print(f"{lang}.txt:{n}: paraphrase uses a trigger word"); errors += 1
        counts[cls] += 1
    for c in CLASSES:
        total[c] += counts[c]
        if counts[c] != EXPECTED[lang]:
            print(f"{lang}.txt: {c} has {counts[c]}, expected {EXPECTED[lang]}"); errors += 1
    print(f"| {lang}.txt | " + " | ".join(str(counts[c]) for c in CLASSES) + f" | {sum(counts.values())} |")
print("| total | " + " | ".join(str(total[c]) for c in CLASSES) + f" | {sum(total.values())} |")

bpath = os.path.join(HERE, "benign.txt")
with open(bpath, encoding="utf-8") as f:
    btext = f.read()
blines = btext.split("\n")
if not all(l.startswith("# ") for l in blines[:3]):
    print("benign.txt: first 3 lines must be '# ' headers"); errors += 1
titles = [l for l in blines if l.startswith("=== ")]
blocks = re.split(r"\n(?==== )", btext)[1:]
for b in blocks:
    body = b.strip().split("\n")[1:]
    if not any(x.strip() for x in body):
        print(f"benign.txt: empty block {b.splitlines()[0]!r}"); errors += 1
if len(set(titles)) != len(titles):
    print("benign.txt: note, some titles repeat across languages (allowed)")
print(f"benign.txt: {len(titles)} '===' blocks (expected 200)")
if len(titles) != 200:
    errors += 1
print("OK" if not errors else f"{errors} problem(s)")
sys.exit(1 if errors else 0)
