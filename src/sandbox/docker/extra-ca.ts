import { readFileSync, statSync } from 'node:fs';
import { UserError } from '../../util/errors.js';

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';
const HINT = 'pass a readable PEM bundle of -----BEGIN CERTIFICATE----- blocks (the host\'s system trust store is one), or unset OPENFORGE_EXTRA_CA';

/**
 * The extra CA bundle (--extra-ca / OPENFORGE_EXTRA_CA), read once and checked when the builder is made:
 * a wrong path must fail before anything runs, not halfway through an image build that needed it.
 */
export function readExtraCa(file: string): Buffer {
  let content: Buffer;
  try {
    if (statSync(file).isDirectory()) throw new UserError(`extra CA bundle ${file} is a folder, not a file`, HINT);
    content = readFileSync(file);
  } catch (err) {
    if (err instanceof UserError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable' : `cannot be read (${code ?? String(err)})`;
    throw new UserError(`extra CA bundle ${file} ${why}`, HINT);
  }
  // empty (e.g. /dev/null) means no bundle, as it does inside the builds
  if (content.length > 0 && !content.includes(PEM_CERTIFICATE)) throw new UserError(`extra CA bundle ${file} holds no PEM certificate`, HINT);
  return content;
}
