/* Included by parts.c only: main.c declares offset by a prototype inside main, under its
 * own 'acc routine seq' line (C allows a prototype at block scope; so does OpenACC). */
#pragma acc routine seq
double offset(double x);
