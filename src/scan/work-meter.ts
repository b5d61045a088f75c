/**
 * Characters the engine has searched and handed to call bodies, characters it copied to read
 * text again, and characters the JSON tokenizer searched past, counted for the tests of linear time: a count answers "how much work per character"
 * exactly where a wall-clock ratio is noise on a busy machine. One addition per search or write,
 * so counting costs nothing that shows.
 */
export const workMeter = { characters: 0 };
