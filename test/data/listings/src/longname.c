/* longname: a function whose section name (-ffunction-sections) is longer than the 99
 * characters of an input line gas shows in a listing, so the listing cuts the name. */
int the_function_with_a_name_long_enough_that_gas_cuts_its_section_directive_in_the_listing(int x)
{
    return x * 3 + 1;
}

int main(int argc, char** argv)
{
    (void)argv;
    return the_function_with_a_name_long_enough_that_gas_cuts_its_section_directive_in_the_listing(argc);
}
