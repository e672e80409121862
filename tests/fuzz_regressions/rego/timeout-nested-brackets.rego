package main

x = e {
	e[[[[[[[[[[[[[[[[[[[[[[[[ := 1
}
