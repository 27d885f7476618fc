raise ValueError("No closing quotation")
