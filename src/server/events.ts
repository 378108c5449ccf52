/** Names of the in-process events (`ctx.events`) that more than one floor listens to. */

/** The whole state was replaced (reset, import, snapshot restore): caches built on the old state must go. */
export const STATE_REPLACED = 'state:replaced';
