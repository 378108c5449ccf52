import type { Router } from 'express';
import type { EmuContext } from '../../context.js';
import type { Route } from '../../contract.js';
import { queryInt, queryString } from '../../server/params.js';
import { routeTableRouter } from '../../server/router.js';
import { clearMail, listMail, mailAfter, MAX_MAIL_WAIT_SECONDS, presentMail } from './mail.js';

/**
 * `/_emu/mail`: the e-mails the automation connector would have sent.
 * - `GET /_emu/mail[?to=<address>]`: all of them, newest last.
 * - `GET /_emu/mail?after=<id>&wait=<seconds>`: those newer than `after`; with none yet, the request waits up to
 *   `wait` seconds for one (a long poll: what `platform-emu mail --follow` uses).
 * - `DELETE /_emu/mail`: forgets them all.
 */
const mailControlRoutes: Route[] = [
  {
    method: 'GET',
    path: '/mail',
    scope: null,
    summary: 'The captured e-mails',
    query: [
      { name: 'to' },
      { name: 'after', schema: { type: 'integer' } },
      { name: 'wait', description: `seconds, at most ${MAX_MAIL_WAIT_SECONDS}`, schema: { type: 'integer' } },
    ],
    handler: async (req, res) => {
      const ctx = req.ctx;
      const to = queryString(req, 'to');
      const after = queryInt(req, 'after');
      const wait = queryInt(req, 'wait', { max: MAX_MAIL_WAIT_SECONDS }) ?? 0;
      if (after === undefined && wait === 0) {
        res.json(listMail(ctx, { to }).map(presentMail));
        return;
      }
      const onClose = (listener: () => void) => {
        res.on('close', listener);
        return () => res.off('close', listener);
      };
      const mail = await mailAfter(ctx, after ?? 0, wait * 1000, onClose, to);
      if (!res.writableEnded && !res.destroyed) res.json(mail.map(presentMail));
    },
  },
  {
    method: 'DELETE',
    path: '/mail',
    scope: null,
    summary: 'Forget the captured e-mails',
    handler: async (req, res) => {
      await clearMail(req.ctx);
      res.status(204).end();
    },
  },
];

export const mailControlRouter = (ctx: EmuContext): Router => routeTableRouter(ctx, mailControlRoutes);
