// The names of the core's fields that the check treats apart, read from typed accessors
// rather than written as strings: renaming a field in the core renames it here too (or
// breaks the build), so a rename never silently changes what the search hashes.

/** The fields `read` reads, in order: `fieldsOf<Node>((n) => [n.id, n.ids])` is ["id", "ids"]. */
export function fieldsOf<T>(read: (o: T) => unknown[]): string[] {
  const names: string[] = []
  const recorder = new Proxy(
    {},
    {
      get(_target, key) {
        names.push(String(key))
        return undefined
      },
    },
  )
  read(recorder as T)
  return names
}

/** The one field `read` reads. */
export function fieldOf<T>(read: (o: T) => unknown): string {
  const names = fieldsOf<T>((o) => [read(o)])
  if (names.length !== 1) throw new Error(`a field accessor must read one field, read ${names.length}`)
  return names[0]
}
