import type { AuthenticateError, Client } from 'aedes';
import { PasswordChecksBusy } from '../auth/passwords.js';
import type { EmuContext } from '../context.js';
import { checkMqttLogin } from '../services/ccm/basic-credentials.js';

/**
 * CONNACK return codes (MQTT 3.1.1): too many password checks under way (a flood of CONNECTs: try later), the
 * client's credentials are wrong, or it sent none where they are required.
 */
const SERVER_UNAVAILABLE = 3;
const BAD_USERNAME_OR_PASSWORD = 4;
const NOT_AUTHORIZED = 5;

function refusal(returnCode: number, message: string): AuthenticateError {
  return Object.assign(new Error(message), { returnCode }) as AuthenticateError;
}

/**
 * The broker's CONNECT check. A client that sends a username is checked against the credentials manager's basic
 * credentials in either mode; a client that sends none connects with `--mqtt-auth anonymous` (the default, so that
 * devices known only by their endpoint token keep working) and is refused with `basic`.
 */
export function mqttAuthenticate(ctx: EmuContext) {
  return (
    client: Client,
    username: Readonly<string | undefined>,
    password: Readonly<Buffer | undefined>,
    done: (error: AuthenticateError | null, success: boolean | null) => void,
  ): void => {
    if (username === undefined || username === '') {
      if (password !== undefined)
        return done(refusal(BAD_USERNAME_OR_PASSWORD, 'A password without a username.'), false);
      if (ctx.config.mqttAuth === 'basic')
        return done(refusal(NOT_AUTHORIZED, 'This broker requires basic credentials (--mqtt-auth basic).'), false);
      return done(null, true);
    }
    checkMqttLogin(ctx, username, password === undefined ? '' : Buffer.from(password).toString('utf8')).then(
      (result) => {
        if (result === 'ok') return done(null, true);
        ctx.log(
          `MQTT client ${client.id} refused: unknown username ${username} (a username two tenants hold is ` +
            `named <tenantId>/<username>), a wrong password, or credentials that are Suspended or Revoked.`,
        );
        done(refusal(BAD_USERNAME_OR_PASSWORD, 'Bad user name or password.'), false);
      },
      (err: Error) => {
        if (err instanceof PasswordChecksBusy) return done(refusal(SERVER_UNAVAILABLE, err.message), false);
        done(refusal(NOT_AUTHORIZED, `The credentials could not be checked: ${err.message}`), false);
      },
    );
  };
}
