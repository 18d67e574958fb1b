module ksspec.example/go-cache-adapter

go 1.22
