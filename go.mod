module github.com/ragtriage/ragtriage

go 1.26
