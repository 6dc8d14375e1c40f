/**
 * `DEPLOYMENT_MIN_SIZE`: the operator's floor for the deployment log, in leaves (docs/deployment-log.md,
 * "Cold start"); read by the integrator and the sealer. Empty or unset is 0 (no floor).
 *
 * @throws {Error} when it is not a whole number of leaves (a deployment error: the function does not start)
 */
export function deploymentMinSize(text: string | undefined): number {
  if (text === undefined || text === '') return 0;
  if (!/^(?:0|[1-9][0-9]{0,15})$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new Error(`DEPLOYMENT_MIN_SIZE must be a whole number of leaves, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}
