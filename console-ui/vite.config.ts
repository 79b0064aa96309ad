import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

/**
 * Built to static files that the walletd console role serves at /console/ under a CSP without
 * 'unsafe-inline': nothing may be inlined into index.html or turned into a data: URI, so every
 * script, style and asset is a file from the console's own origin.
 */
export default defineConfig({
  base: '/console/',
  plugins: [preact({ prerender: { enabled: false } })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    // The polyfill is a script Vite would add to the entry; browsers this console targets have modulepreload.
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
