// `node --import ./imports-log.mjs ...` appends the URL of every module the program imports to $IMPORTS_LOG.
import { register } from 'node:module';

register('./imports-log-hooks.mjs', import.meta.url);
