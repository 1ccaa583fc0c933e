module crossings/e6

go 1.20

require (
	github.com/mattn/go-sqlite3 v1.14.22
	github.com/proullon/ramsql v0.1.5
)

require (
	github.com/google/uuid v1.3.0 // indirect
	golang.org/x/exp v0.0.0-20230713183714-613f0c0eb8a1 // indirect
)
