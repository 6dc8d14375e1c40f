/** The stack's event bus name, `<stack name>-events`: a stack name is unique per account and region, so is the bus's. */
export const eventBusNameOf = (stackName: string): string => `${stackName}-events`;
