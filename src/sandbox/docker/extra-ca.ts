import { existsSync, readFileSync, statSync } from 'node:fs';
import { UserError } from '../../util/errors.js';

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';
const HINT = "pass a readable PEM bundle of -----BEGIN CERTIFICATE----- blocks (the host's system trust store is one), or unset OPENFORGE_EXTRA_CA";

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

/** Where Debian/Ubuntu, Fedora/RHEL and Alpine/macOS keep the system's trust store as one PEM bundle. */
const SYSTEM_TRUST_STORES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

/**
 * The host's system trust store, which builds that fetch over https use unless a bundle is given: where a
 * TLS-inspecting proxy sits in between, its certificate is trusted there, so a build works wherever the
 * host's own tools do. Undefined when the host has none of the usual files.
 */
export function systemTrustStore(): string | undefined {
  return SYSTEM_TRUST_STORES.find((file) => existsSync(file) && statSync(file).size > 0);
}
