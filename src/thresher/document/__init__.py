"""The document model: bytes decoded to text, parsed by the native core into blocks, with the
page's language and its JSON-LD."""
