import { nodeVersionWarning } from './nodeVersion';

describe('nodeVersionWarning', () => {
  it('names the supported versions on a Node.js older than 22.12, and says nothing from 22.12 on', () => {
    for (const old of ['18.20.4', '20.20.2', '22.11.0']) {
      expect(nodeVersionWarning(old)).toBe(
        `Node.js ${old} is not supported: walletd supports Node.js 22.12 or newer (24 is what CI runs); upgrade Node.js before reporting a failure`,
      );
    }
    for (const ok of ['22.12.0', '22.20.1', '24.21.0', '25.0.0']) expect(nodeVersionWarning(ok)).toBeNull();
  });
});
