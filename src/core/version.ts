/** Kept in step with package.json by test/unit/version.test.ts. */
export const VERSION = '0.1.0';
