import type { Kp1Extension } from '../extension.js';
import { bcx } from './bcx/index.js';
import { cex } from './cex/index.js';
import { cmx } from './cmx/index.js';
import { cmxOta } from './cmx_ota/index.js';
import { dcx } from './dcx/index.js';
import { epmx } from './epmx/index.js';
import { tsx } from './tsx/index.js';

/** The one list of KP1 extensions the gateway speaks: a new extension is a folder here and one entry below. */
export const extensions: readonly Kp1Extension[] = [bcx, cex, cmx, cmxOta, dcx, epmx, tsx];
