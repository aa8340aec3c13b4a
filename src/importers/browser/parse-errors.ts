import { UserError } from '../../util/errors.js';

/** A clear error naming the file, the record and the field at fault. */
export function badRecord(file: string, where: string, problem: string, hint: string): UserError {
  return new UserError(`${file}: ${where}: ${problem}`, hint);
}

/** A task id made safe as a folder name and image tag part: lower case, [a-z0-9._-]. */
export function safeId(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100);
}

/** "amazon.com" or "https://www.amazon.com/" → an absolute http(s) URL. */
export function siteUrl(raw: string): string | null {
  const text = raw.trim();
  const withScheme = /^https?:\/\//i.test(text) ? text : `https://${text}`;
  try {
    const url = new URL(withScheme);
    return url.hostname.includes('.') ? url.toString() : null;
  } catch {
    return null;
  }
}
