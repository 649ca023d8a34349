/** The package's version (package.json's; a test keeps them equal). */
export const VERSION = "0.2.0";
