// `node --import ./v8-flags-log.mjs ...` appends every flag the program sets with `v8.setFlagsFromString` to
// $V8_FLAGS_LOG, one call a line, and then sets it as asked.
import { appendFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import v8 from 'node:v8';

const setFlags = v8.setFlagsFromString;
v8.setFlagsFromString = (flags) => {
  appendFileSync(process.env.V8_FLAGS_LOG, `${flags}\n`);
  setFlags(flags);
};
// Modules that import the function by name (`import { setFlagsFromString } from 'node:v8'`) get this one too.
syncBuiltinESMExports();
