package json
