// Package evalkit reads labeled datasets and recorded traffic, replays them
// through a guard, and reports how well the guard decides.
//
// This first part holds the dataset reader shared by `ragtriage judge` and
// the profile refit tool: ParseRow decodes one JSON line of the dataset shape
// (id, question, contexts[{id,text}], answer, referenceAnswer?, expected?),
// rejecting bad lines with an error that names the field.
package evalkit
