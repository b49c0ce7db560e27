// The labelled data the embedded judges are fitted and measured on. It is a
// module of its own so that it stays out of the library's module download:
// `go get github.com/ragtriage/ragtriage` fetches no data.
module github.com/ragtriage/ragtriage/data

go 1.26.0
