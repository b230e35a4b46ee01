import { defineConfig } from 'vite';

/**
 * The console is served by the service at /console (api/consoleStatic.ts): hashed file names under
 * assets/ (cached for a year), no inline script (the page's Content-Security-Policy forbids it), JSX
 * compiled by Vite's own transformer (no plugin needed).
 */
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
    chunkSizeWarningLimit: 400,
    rollupOptions: {
      // React Query's "use client" markers mean nothing outside a server-components bundler.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
    },
  },
  server: { proxy: { '/api': 'http://127.0.0.1:3000', '/ws': { target: 'ws://127.0.0.1:3000', ws: true } } },
});
