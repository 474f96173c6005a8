/**
 * AWS Signature Version 4 over a request as it goes out (method, URL, every header, the exact
 * body), with @smithy/signature-v4 and @aws-crypto/sha256-js, loaded on first use so a gateway
 * without Bedrock never loads them. Returns the headers to add (host, x-amz-date, the session
 * token, the payload hash, authorization).
 * @see https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-create-signed-request.html
 */

import type { AwsCredentials } from '../config/types.js';
import type { OutgoingRequest } from './types.js';

export interface SigningScope {
  service: string;
  region: string;
  credentials: AwsCredentials;
}

type Libraries = [typeof import('@smithy/signature-v4'), typeof import('@aws-crypto/sha256-js')];
let libraries: Promise<Libraries> | undefined;

export async function signV4(request: OutgoingRequest, scope: SigningScope): Promise<Record<string, string>> {
  libraries ??= Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]);
  const [{ SignatureV4 }, { Sha256 }] = await libraries;
  const url = new URL(request.url);
  const signed = await new SignatureV4({ ...scope, sha256: Sha256 }).sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { ...request.headers, host: url.host },
    ...(request.body !== undefined ? { body: request.body } : {}),
  });
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) if (!(name in request.headers)) added[name] = value;
  return added;
}
