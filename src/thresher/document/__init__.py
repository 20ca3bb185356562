"""The document model: bytes decoded to text, parsed by the native core into blocks, with the
page's language, its JSON-LD and the CSS selectors that prune it."""
