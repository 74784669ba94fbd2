/** Side-effect style imports, bundled by Vite. */
declare module '*.css';
