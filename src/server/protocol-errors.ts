/**
 * Requests Node's HTTP parser refuses before any handler sees them (bad framing, unknown
 * methods, oversized headers, headers or request arriving too slowly). They still get the
 * contract: a status that says what was wrong, X-Correlation-ID, a JSON error body in the
 * caller's format when it can be told from the bytes received, and one log line.
 */

import { STATUS_CODES, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { GatewayError, type ErrorCode } from '../core/errors.js';
import { newCorrelationId } from '../core/ids.js';
import { anthropicMessages } from '../formats/anthropic-messages/index.js';
import { openaiChat } from '../formats/openai-chat/index.js';
import type { Logger } from '../observe/logger.js';
import { BODY_REFUSED } from '../http/unread-body.js';

interface ParserError extends Error {
  code?: string;
  /** The chunk being parsed when the error occurred. */
  rawPacket?: Buffer;
}

const REFUSALS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'The request headers are too large.'],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: ['body_too_large', 'The chunk extensions of the request body are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request did not arrive in time.'],
  HPE_INVALID_METHOD: ['invalid_request', 'The request method is not valid HTTP.'],
  HPE_UNEXPECTED_CONTENT_LENGTH: ['invalid_request', 'The request has both Content-Length and Transfer-Encoding.'],
  HPE_INVALID_CONTENT_LENGTH: ['invalid_request', 'The request has an invalid Content-Length.'],
  HPE_INVALID_TRANSFER_ENCODING: ['invalid_request', 'The request has an invalid Transfer-Encoding.'],
  HPE_INVALID_CHUNK_SIZE: ['invalid_request', 'The chunked request body is malformed.'],
};

/** How long a refused connection may keep sending before it is closed. */
const LINGER_MS = 1000;
const answered = new WeakSet<Duplex>();

/** The `clientError` handler of the gateway's server. */
export function answerProtocolError(err: ParserError, socket: Duplex, logger: Logger): void {
  // The parser reports every later chunk of a broken connection again: answer once.
  if (answered.has(socket)) return;
  answered.add(socket);
  // Node's own check: a response already under way on this socket must not be corrupted.
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  // A client that ends its side in the middle of a request's body has left (a 499 for the
  // request, from its own 'close'), whatever it may still read.
  const left = err.code === 'HPE_INVALID_EOF_STATE' && inFlight !== undefined && inFlight !== null;
  if (err.code === 'ECONNRESET' || left || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [code, message] = REFUSALS[err.code ?? ''] ?? ['invalid_request', 'The request is not valid HTTP/1.1.'];
  const error = new GatewayError(code, message);
  // A request whose body is being read (bad chunked framing): its pipeline answers, in the
  // caller's format, with its own correlation id and log line, and closes the connection.
  if (inFlight && inFlight.req.listenerCount(BODY_REFUSED) > 0) {
    inFlight.req.emit(BODY_REFUSED, error);
    socket.resume();
    return;
  }
  // Otherwise the answer is written here; a request under way keeps its correlation id.
  const inFlightId = inFlight?.getHeader('x-correlation-id');
  const id = typeof inFlightId === 'string' ? inFlightId : newCorrelationId();
  const format = looksAnthropic(err.rawPacket) ? anthropicMessages : openaiChat;
  const body = Buffer.from(JSON.stringify(format.renderError(error)));
  const head =
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}\r\n` +
    `content-type: application/json\r\ncontent-length: ${body.length}\r\n` +
    `x-correlation-id: ${id}\r\nx-should-retry: ${error.retryable}\r\nconnection: close\r\n\r\n`;
  // Half-close, and let the client finish sending for a moment: closing with its bytes unread
  // would reset the connection and could take the answer with it.
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), body]));
  socket.once('end', () => socket.destroy());
  setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.resume();
  if (logger.enabled('warn')) {
    logger.log('warn', 'protocol error', {
      correlation_id: id,
      status: error.status,
      error_code: code,
      fault: 'caller',
      parser_error: err.code,
    });
  }
}

/** Whether the bytes seen so far name the messages endpoint or carry `anthropic-version`. */
function looksAnthropic(raw: Buffer | undefined): boolean {
  if (!raw) return false;
  const text = raw.toString('latin1', 0, Math.min(raw.length, 64 * 1024)).toLowerCase();
  return /^[a-z]+ \/v1\/messages/.test(text) || text.includes('\nanthropic-version:');
}
