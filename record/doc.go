// Package record is the wire format of one captured evaluation: the JSON
// line the middleware's record sink writes and evalkit replays
// (`ragtriage eval -records`). It is a leaf: it imports only guard and the
// standard library, so that the production path (middleware) can write
// records without importing the offline kit. [Check] refuses a record no
// evaluation can produce; the readers of records and traces call it.
package record
