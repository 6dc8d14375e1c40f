import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { parser } from '@aws-lambda-powertools/parser/middleware';
import { LambdaFunctionUrlSchema } from '@aws-lambda-powertools/parser/schemas/lambda';
import middy from '@middy/core';
import type { z } from 'zod';
import { RE_ANCHOR_PATH } from '../../shared/witness/re-anchor-request';
import type { WitnessService } from './witness-service';

type FunctionUrlEvent = z.infer<typeof LambdaFunctionUrlSchema>;

/** A Lambda function URL answer. */
export interface HttpAnswer {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The submission path of C2SP tlog-witness, below the function URL (the submission prefix). */
export const ADD_CHECKPOINT_PATH = '/add-checkpoint';

const text = (statusCode: number, body: string, headers: Record<string, string> = {}): HttpAnswer => ({
  statusCode,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  body,
});

/**
 * The witness's HTTP handler (Lambda function URL, payload 2.0), around a {@link WitnessService}:
 * `POST /add-checkpoint`, and `POST /re-anchor` (docs/witness.md, "re-anchor"), only (else 404,
 * or 405 with `Allow: POST`); the body as UTF-8 text,
 * base64-decoded when the URL delivered it so. Throws only on infrastructure failures (500).
 */
export function createWitnessHandler(service: WitnessService, logger: Logger) {
  return middy(async (event: FunctionUrlEvent): Promise<HttpAnswer> => {
    if (event.rawPath !== ADD_CHECKPOINT_PATH && event.rawPath !== RE_ANCHOR_PATH) {
      return text(404, `no such path; POST ${ADD_CHECKPOINT_PATH}\n`);
    }
    if (event.requestContext.http.method !== 'POST') return text(405, 'POST only\n', { allow: 'POST' });
    const raw = event.body ?? '';
    const body = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    const response =
      event.rawPath === RE_ANCHOR_PATH ? await service.reAnchor(body) : await service.addCheckpoint(body);
    return { statusCode: response.status, headers: { 'content-type': response.contentType }, body: response.body };
  })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(parser({ schema: LambdaFunctionUrlSchema }));
}
