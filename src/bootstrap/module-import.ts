/**
 * `import()` for code that may run inside a bundled classic script loaded from V8's code cache
 * (cached-script.ts). On Node 20 such a script cannot call `import()` itself: the cache drops the
 * import callback its compile registered (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING). Its loader, an
 * ES module, hands it its own `import()` through {@link setModuleImporter}.
 */
type Importer = (specifier: string) => Promise<unknown>;

let importer: Importer = (specifier) => import(specifier);

/** Loads an ES module (a file URL or a package name) as the host's `import()` does. */
export function importModule<T = unknown>(specifier: string): Promise<T> {
  return importer(specifier) as Promise<T>;
}

/** The `import()` that {@link importModule} uses from now on. */
export function setModuleImporter(next: Importer): void {
  importer = next;
}
