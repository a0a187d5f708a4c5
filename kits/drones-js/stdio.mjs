// Output hygiene for the kit's Node programs: keep a private handle to the real stdout for protocol
// (or result) lines, then send every other way of printing to stderr before any bot code runs.
// Writes to pipes are synchronous on Linux, so lines never interleave.
import { Console } from "node:console";

export function claimStdout() {
  const stdout = process.stdout;
  const stderr = process.stderr;
  const writeOut = stdout.write.bind(stdout);
  const writeLog = stderr.write.bind(stderr);
  globalThis.console = new Console({ stdout: stderr, stderr });
  stdout.write = writeLog;
  return { writeOut, writeLog };
}
