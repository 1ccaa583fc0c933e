module moremath_p

go 1.20

require github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794
