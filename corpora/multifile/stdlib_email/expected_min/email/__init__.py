def message_from_string(s):
    from email.message import Message

    message = Message()
    head, message.payload = s.split("\n\n")
    message.headers = dict(line.split(": ", 1) for line in head.split("\n"))
    return message
