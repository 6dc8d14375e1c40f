import { z } from 'zod';
import { MAX_BATCHING_WINDOW_SECONDS } from '../shared/cost/deploy-settings';

/**
 * A stack's integration interval as its `IntegrationIntervalSeconds` output and the stack pin state
 * it: whole seconds, 1 to 300 (the SQS batching window's range, as the stack deploys it). A client
 * states its freshness window as maximum age + this (docs/deployment-log.md, "Freshness window and
 * interval"). Its own file so the pin reads it without loading the CloudFormation SDK.
 */
export const IntegrationIntervalSeconds = z.number().int().min(1).max(MAX_BATCHING_WINDOW_SECONDS);
