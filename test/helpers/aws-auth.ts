/**
 * How AWS checks a Bedrock runtime call's credential, for the fake Bedrock upstreams: a Bedrock API
 * key as `Authorization: Bearer …`, or a SigV4 signature recomputed with @smithy/signature-v4 from
 * the known test credentials over the headers it names and the body received (whose SHA-256 must be
 * the one signed). A refusal is an AwsRefusal with AWS's exception name and status.
 * Shares no code with src/.
 */

import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

export interface AwsTestCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** An AWS error: its status, its exception name (`x-amzn-errortype`) and `{message}`. */
export class AwsRefusal extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

/** `AWS4-HMAC-SHA256 Credential={key}/{date}/{region}/{service}/aws4_request, SignedHeaders=…, Signature=…` */
const AUTHORIZATION = new RegExp(
  '^AWS4-HMAC-SHA256 Credential=([^/]+)/(\\d{8})/([^/]+)/([^/]+)/aws4_request, ' +
    'SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$',
);

export type AwsAuthCheck = (method: string, path: string, headers: IncomingHttpHeaders, body: Buffer) => Promise<void>;

/** A checker for one region's Bedrock runtime (service `bedrock`); throws AwsRefusal. */
export function bedrockAuthCheck(opts: {
  region: string;
  credentials: AwsTestCredentials;
  apiKey: string;
}): AwsAuthCheck {
  const signer = new SignatureV4({
    service: 'bedrock',
    region: opts.region,
    credentials: opts.credentials,
    sha256: Sha256,
  });
  const invalidToken = () =>
    new AwsRefusal(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
  const badSignature = (message: string) => new AwsRefusal(403, 'InvalidSignatureException', message);

  return async (method, path, headers, body) => {
    const auth = headers.authorization ?? '';
    if (auth.startsWith('Bearer ')) {
      if (auth.slice(7) !== opts.apiKey) throw new AwsRefusal(403, 'AccessDeniedException', 'Authentication failed');
      return;
    }
    const m = AUTHORIZATION.exec(auth);
    if (!m) throw new AwsRefusal(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
    const [, keyId, , region, service, signedHeaders] = m;
    if (keyId !== opts.credentials.accessKeyId) throw invalidToken();
    if (region !== opts.region || service !== 'bedrock')
      throw badSignature(`Credential should be scoped to ${opts.region}/bedrock`);
    if (
      opts.credentials.sessionToken !== undefined &&
      headers['x-amz-security-token'] !== opts.credentials.sessionToken
    )
      throw invalidToken();
    const hash = createHash('sha256').update(body).digest('hex');
    if (headers['x-amz-content-sha256'] !== undefined && headers['x-amz-content-sha256'] !== hash)
      throw badSignature('The body does not match its signed hash.');
    const names = signedHeaders.split(';');
    if (!names.includes('host') || !names.includes('x-amz-date'))
      throw badSignature('host and x-amz-date must be signed.');
    const signed: Record<string, string> = {};
    for (const n of names) signed[n] = String(headers[n] ?? '');
    const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(signed['x-amz-date']);
    if (!date) throw badSignature('Bad x-amz-date');
    const signingDate = new Date(`${date[1]}-${date[2]}-${date[3]}T${date[4]}:${date[5]}:${date[6]}Z`);
    const url = new URL(path, 'http://x');
    const expected = await signer.sign(
      {
        method,
        protocol: 'http:',
        hostname: signed.host.split(':')[0],
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: signed,
        ...(body.length > 0 ? { body } : {}),
      },
      { signingDate },
    );
    if (expected.headers.authorization !== auth)
      throw badSignature('The request signature we calculated does not match the signature you provided.');
  };
}
