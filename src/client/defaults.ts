/** Where the CLI looks for an emulator when nothing says otherwise (the default of `platform-emu start`). */
export const DEFAULT_EMULATOR_URL = 'http://127.0.0.1:8080';
