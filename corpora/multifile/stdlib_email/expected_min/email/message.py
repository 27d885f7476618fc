class Message:
    def get_payload(self):
        return self.payload

    def __getitem__(self, name):
        return self.headers[name]
