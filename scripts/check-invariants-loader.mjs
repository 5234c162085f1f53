#!/usr/bin/env node
// Cross-checks git-rune's reading of INVARIANTS.md against Rune's own invariants loader
// (Rune-kit/rune, skills/session-bridge/scripts/load-invariants.js), which this script does
// not ship: point it at a checkout that has it. It fetches nothing.
//
//   node scripts/check-invariants-loader.mjs --loader <path/to/load-invariants.js> \
//        [--write] [--git-rune <path/to/git-rune>]
//
// 1. For every tests/fixtures/invariants/*.md, the loader's active rules are compared with
//    the recorded <name>.loader.json (--write records them instead). The unit tests compare
//    git-rune's rules and its oracle of the loader with those files, so they pin the
//    loader's behaviour without needing node.
// 2. With --git-rune, each fixture is saved through a real git-rune view in a scratch
//    repository; the loader then reads the file git-rune rendered, and its active rules
//    must equal `git rune show invariants --json`'s (rules in the loader's four sections:
//    the loader never reads others).
//
// Exit status 1 on any difference.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'tests', 'fixtures', 'invariants');

const { values } = parseArgs({
  options: {
    loader: { type: 'string' },
    write: { type: 'boolean', default: false },
    'git-rune': { type: 'string' },
  },
});
if (!values.loader) {
  console.error('usage: check-invariants-loader.mjs --loader <load-invariants.js> [--write] [--git-rune <bin>]');
  process.exit(2);
}
const loader = await import(pathToFileURL(path.resolve(values.loader)).href);
const activeRules = (text) => loader.parseInvariants(loader.stripArchived(text));

/// The loader's section keys, from the section names git-rune keeps.
function sectionKey(name) {
  const n = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  const known = [
    ['danger', ['dangerzones']],
    ['critical', ['criticalinvariants', 'criticalcontracts']],
    ['state', ['statemachinerules', 'statemachines']],
    ['cross', ['crossfileconsistency', 'crossfilecouplings']],
  ];
  for (const [key, names] of known) if (names.some((k) => n.startsWith(k))) return key;
  return 'other';
}

let failed = 0;
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

for (const name of readdirSync(fixtures).filter((f) => f.endsWith('.md')).sort()) {
  const file = path.join(fixtures, name);
  const text = readFileSync(file, 'utf8');
  const rules = activeRules(text);
  const recorded = file.replace(/\.md$/, '.loader.json');
  if (values.write) {
    writeFileSync(recorded, `${JSON.stringify(rules, null, 2)}\n`);
  } else {
    const want = JSON.parse(readFileSync(recorded, 'utf8'));
    if (!same(rules, want)) {
      failed += 1;
      console.log(`${name}: the loader reads ${JSON.stringify(rules)}, ${path.basename(recorded)} says ${JSON.stringify(want)}`);
    }
  }

  if (!values['git-rune']) continue;
  const bin = path.resolve(values['git-rune']);
  const dir = mkdtempSync(path.join(tmpdir(), 'rune-loader-check-'));
  try {
    const run = (cmd, args) => execFileSync(cmd, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_RUNE_SKIP_HOOKS: '1' } });
    run('git', ['init', '-q', '-b', 'main']);
    run('git', ['config', 'user.name', 'check']);
    run('git', ['config', 'user.email', 'check@example.com']);
    run(bin, ['init', '--no-hooks']);
    mkdirSync(path.join(dir, '.rune'), { recursive: true });
    writeFileSync(path.join(dir, '.rune', 'INVARIANTS.md'), text);
    run(bin, ['save', '-m', 'check']);
    const rendered = readFileSync(path.join(dir, '.rune', 'INVARIANTS.md'), 'utf8');
    const shown = JSON.parse(run(bin, ['show', 'invariants', '--json']));
    const all = shown.rules.map((r) => ({
      section: sectionKey(r.section),
      title: r.title,
      what: r.what,
      where: r.where,
      why: r.why,
    }));
    const ours = all.filter((r) => r.section !== 'other');
    const theirs = activeRules(rendered);
    const missed = ours.filter((r) => !theirs.some((t) => same(t, r)));
    const extra = theirs.filter(
      (t) => !all.some((r) => same(r, t) || (r.section === 'other' && same({ ...r, section: t.section }, t))),
    );
    if (missed.length || extra.length) {
      failed += 1;
      console.log(`${name}: git-rune shows ${JSON.stringify(ours)}\n  the loader reads its view as ${JSON.stringify(theirs)}\n--- view\n${rendered}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (failed) {
  console.log(`${failed} difference(s)`);
  process.exit(1);
}
console.log('the loader and git-rune agree');
