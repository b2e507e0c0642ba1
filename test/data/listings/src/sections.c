/* sections: code placed with the section directives gcc rarely emits itself, written as
 * inline assembly so that the real gas lists them: .pushsection/.popsection, .section with
 * .previous, and .subsection. Only 'nop' is used, so the file assembles on every target. */
int counter;

void pushed(void)
{
    counter += 1;
    __asm__ volatile(".pushsection .text.pushed,\"ax\",@progbits\n\t"
                     "nop\n\tnop\n\tnop\n\t"
                     ".popsection");
    counter += 2;
}

void previous(void)
{
    counter += 3;
    __asm__ volatile(".section .text.previous,\"ax\",@progbits\n\t"
                     "nop\n\tnop\n\t"
                     ".previous");
    counter += 4;
}

void subsection(void)
{
    counter += 5;
    __asm__ volatile(".subsection 1\n\t"
                     "nop\n\tnop\n\tnop\n\tnop\n\t"
                     ".subsection 0");
    counter += 6;
}
