import { describe, expect, it } from 'vitest';
import { stackOutputsFile } from '../../../scripts/emulator/deploy';

// Two emulators started from one clone deploy to their own ports: their stacks' outputs must not
// share a file (docs/infrastructure.md, "Tests against an emulator").
describe('stackOutputsFile', () => {
  it('keys the default stack outputs by port, as the cloud assembly is', () => {
    const a = stackOutputsFile('4566');
    const b = stackOutputsFile('4567');
    expect(a).not.toBe(b);
    expect(a).toMatch(/[/\\]\.emulator[/\\]outputs-4566\.json$/);
  });

  it('names another stack and its port', () => {
    expect(stackOutputsFile('4566', 'OtherStack')).toMatch(/outputs-OtherStack-4566\.json$/);
  });
});
