import { START_DEFAULTS } from '../config.js';

export { START_DEFAULTS };

/** Where the CLI looks for an emulator when nothing says otherwise (the default of `platform-emu start`). */
export const DEFAULT_EMULATOR_URL = `http://${START_DEFAULTS.host}:${START_DEFAULTS.port}`;
