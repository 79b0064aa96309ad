import { BaseError, InvariantError, isPublicError } from '@walletd/plugin-kit';
import { ConfigError, loadConfig } from './config/loadConfig';
import { PluginRegistrationError, registerPlugins } from './plugin/registerPlugins';

/**
 * Issue 44 §5: the kernel's own error classes join the one hierarchy. Each is a BaseError with an
 * internal code (a 500 no HTTP caller sees as such), keeps its class for `instanceof`, and is not
 * worth retrying as it is: the operator fixes the configuration or the plugin.
 */
describe("the kernel's error classes", () => {
  it.each([
    ['ConfigError', new ConfigError('bad'), ConfigError, 'config_invalid'],
    ['PluginRegistrationError', new PluginRegistrationError('bad'), PluginRegistrationError, 'plugin_invalid'],
  ] as const)('%s is a BaseError with its code, not public, not retriable', (name, e, cls, code) => {
    expect(e).toBeInstanceOf(cls);
    expect(e).toBeInstanceOf(BaseError);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe(name);
    expect(e.code).toBe(code);
    expect(e.status).toBe(500);
    expect(e.retriable).toBe(false);
    expect(isPublicError(e)).toBe(false);
    expect(e.message).toBe('bad');
  });

  it('loadConfig still throws a ConfigError, now a BaseError', () => {
    let thrown: unknown;
    try {
      loadConfig({ file: '/nonexistent/walletd-config.json' });
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect(thrown).toBeInstanceOf(BaseError);
  });

  it('registerPlugins still throws a PluginRegistrationError, now a BaseError', () => {
    let thrown: unknown;
    try {
      registerPlugins([{ name: 'broken' } as never]);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(PluginRegistrationError);
    expect(thrown).toBeInstanceOf(BaseError);
  });

  it('InvariantError reaches the kernel through the kit', () => {
    expect(new InvariantError('x')).toBeInstanceOf(BaseError);
  });
});
