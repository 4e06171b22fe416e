// A V8 code cache for the bundled CLI (dist/cli/*.cjs, loaded by bin/gatehouse.js) where Node has none of its own (Node < 22.1 has
// no module.enableCompileCache). A command that starts on every tool call an agent makes spends much of
// its time compiling the bundle; with the cache V8 reads the compiled code back instead (issue 12).
//
// Whoever can write the cache can change the code Gatehouse runs, so it lives only in a folder that is
// the user's alone (owned by them, written by nobody else, in a home with the same checks), which the
// launcher puts in Gatehouse's own home: the gate keeps agents out of it. An entry is used only for the
// exact file it was made from (size, modification time and inode in its name) and the same V8 and flags
// (V8 rejects any other, and the file is then written again). The V8 build and flags are in the name
// too (V8's own tag for them): the hook runs on V8's default flags and other commands with
// --liftoff-only (bin/gatehouse.js), and one entry for both was rejected and written again by each.
"use strict";
const fs = require("node:fs");
const Module = require("node:module");
const path = require("node:path");
const v8 = require("node:v8");
const vm = require("node:vm");

/** The cache folder, made when missing; null when it (or its parent) is not the user's alone. */
function cacheFolder(parent, name, isPrivateFolder) {
  if (!isPrivateFolder(parent)) return null;
  const folder = path.join(parent, name);
  try {
    fs.mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if (error.code !== "EEXIST") return null;
  }
  return isPrivateFolder(folder) ? folder : null;
}

/**
 * `<file>.v8-<version>-<tag>.<size>-<mtime>-<inode>`, the tag V8's own for its build and the flags set
 * now: the part before the last dot names what a rebuild replaces.
 */
function entryName(filename) {
  const stat = fs.statSync(filename);
  const made = `${stat.size}-${Math.trunc(stat.mtimeMs)}-${stat.ino}`;
  return `${path.basename(filename)}.v8-${process.versions.v8}-${v8.cachedDataVersionTag()}.${made}`;
}

function writeAtomically(file, data) {
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temporary, data, { mode: 0o600 });
    fs.renameSync(temporary, file);
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * Requires `entry` with every file of its folder compiled through the cache in `parent`/`name`, used only
 * while `isPrivateFolder` (src/cli/launcher.ts) holds for both. Anything unusable (no private folder, a bad entry) only costs the compile the cache would save.
 */
function requireWithCodeCache(entry, { parent, name, isPrivateFolder }) {
  const folder = cacheFolder(parent, name, isPrivateFolder);
  if (folder === null) return require(entry);
  const bundleDir = path.dirname(entry);
  const stale = [];
  const compile = Module.prototype._compile;
  Module.prototype._compile = function compileWithCache(content, filename) {
    if (path.dirname(filename) !== bundleDir) return compile.call(this, content, filename);
    const cacheFile = path.join(folder, entryName(filename));
    const cachedData = readOrUndefined(cacheFile);
    // The bundle has no import() (scripts/bundle-cli.mjs): a script compiled here could not run one.
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected)
      stale.push({ script, cacheFile, tag: v8.cachedDataVersionTag() });
    const wrapper = script.runInThisContext({ displayErrors: true });
    const requireHere = Module.createRequire(filename);
    return wrapper.call(this.exports, this.exports, requireHere, this, filename, path.dirname(filename));
  };
  // V8 stamps the data with the flags set when it is made, and an entry's name says those of its lookup:
  // each entry is written while they are the same. The code compiled by then (lazily compiled functions
  // included) is what the next run reads: at exit, or just before a flag changes mid-run (the hook
  // deciding alone sets --liftoff-only before it loads the gate).
  const written = new Set();
  const writeStale = () => {
    const tag = v8.cachedDataVersionTag();
    for (const entry of stale) {
      if (entry.tag !== tag || written.has(path.basename(entry.cacheFile))) continue;
      writeAtomically(entry.cacheFile, entry.script.createCachedData());
      written.add(path.basename(entry.cacheFile));
    }
  };
  const setFlags = v8.setFlagsFromString;
  v8.setFlagsFromString = function setFlagsAfterWriting(flags) {
    writeStale();
    return setFlags.call(this, flags);
  };
  process.once("exit", () => {
    writeStale();
    if (written.size > 0) removeOutdated(folder, bundleDir, written);
  });
  return require(entry);
}

/** Drops entries of files the bundle no longer has, and older entries of the files just written. */
function removeOutdated(folder, bundleDir, written) {
  const renewed = new Set([...written].map((entry) => entry.slice(0, entry.lastIndexOf("."))));
  for (const entry of fs.readdirSync(folder)) {
    if (written.has(entry) || entry.endsWith(".tmp")) continue;
    const file = entry.slice(0, entry.indexOf(".cjs.") + ".cjs".length);
    if (renewed.has(entry.slice(0, entry.lastIndexOf("."))) || !fs.existsSync(path.join(bundleDir, file))) {
      fs.rmSync(path.join(folder, entry), { force: true });
    }
  }
}

function readOrUndefined(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

module.exports = { requireWithCodeCache };
