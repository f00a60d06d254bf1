// Reading a table that grows with the fleet a page at a time, in the order of its id (keyset
// pagination: each page starts after the last id of the one before), so what is held at once is
// a page, and a row written meanwhile is neither skipped nor read twice for being shifted.

/** The pages `read` answers, each after the last id of the one before, until one comes back empty. */
export async function* keysetPages<T extends { id: number }>(
  read: (afterId: number) => Promise<T[]>,
): AsyncGenerator<T[]> {
  let after = 0;
  for (;;) {
    const page = await read(after);
    if (page.length === 0) return;
    yield page;
    after = (page[page.length - 1] as T).id;
  }
}
