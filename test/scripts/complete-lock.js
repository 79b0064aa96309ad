#!/usr/bin/env node
// Completes package-lock.json with the other platforms' optional binary packages.
//
// Why: the registry this project is built against serves only some platforms' builds of
// packages like @biomejs/biome, @swc/core and @foundry-rs/anvil. `npm install` leaves the
// optional dependencies it cannot fetch out of the lock, and `npm ci` then refuses the lock
// ("Missing: @biomejs/cli-darwin-arm64@ from lock file"). Each missing optional dependency gets
// the entry a full registry would have written: its version, and the os/cpu/libc that make
// npm skip it on every other platform. Nothing is fetched for an entry that does not match
// the machine, so no download address or integrity is needed.
//
// Run after any `npm install` that rewrites the lock: `node test/scripts/complete-lock.js`.
// `.ci/run` proves the result with `npm ci`.
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const packages = lock.packages;

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
const CPU = {
  arm64: 'arm64',
  aarch64: 'arm64',
  x64: 'x64',
  amd64: 'x64',
  ia32: 'ia32',
  arm: 'arm',
  ppc64: 'ppc64',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
};

/** os, cpu and libc from a platform package's name (`cli-linux-x64-musl`, `core-win32-ia32-msvc`). */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  if (!os || !cpu) return undefined;
  const entry = { os: [os], cpu: [cpu] };
  if (os === 'linux') entry.libc = [parts.some((p) => p.startsWith('musl')) ? 'musl' : 'glibc'];
  return entry;
}

let added = 0;
for (const [location, pkg] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(pkg.optionalDependencies ?? {})) {
    const base = location === '' ? '' : `${location}/`;
    const nested = `${base}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[nested] || packages[hoisted]) continue;
    const platform = platformOf(dep);
    if (!platform || !/^\d+\.\d+\.\d+/.test(range)) continue;
    packages[hoisted] = {
      version: range,
      ...(pkg.dev ? { dev: true } : {}),
      optional: true,
      ...platform,
    };
    added++;
  }
}

const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lock: ${added} platform entries added`);
