"""Question -> Program: GQA semantic programs now; language-model translation builds on the same Program."""
