package tools

// oDirectory: Windows opens a folder only as a folder already.
const oDirectory = 0
