import type { Kp1Extension } from '../extension.js';
import { bcx } from './kp1-bcx/index.js';
import { cex } from './kp1-cex/index.js';
import { cmx } from './kp1-cmx/index.js';
import { cmxOta } from './kp1-cmx_ota/index.js';
import { dcx } from './kp1-dcx/index.js';
import { epmx } from './kp1-epmx/index.js';
import { tsx } from './kp1-tsx/index.js';

/** The one list of KP1 extensions the gateway speaks: a new extension is a folder here and one entry below. */
export const extensions: readonly Kp1Extension[] = [bcx, cex, cmx, cmxOta, dcx, epmx, tsx];
