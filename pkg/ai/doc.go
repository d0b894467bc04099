// Package ai holds what every model adapter and every layer above shares:
// messages and content blocks that read and write pi's JSON byte for byte
// (unknown fields survive a round trip), the Model interface for one
// streaming request, the stream event grammar (start, block start/delta/end,
// then exactly one done or error), usage and cost, model descriptions, and
// classified provider errors.
package ai
