import { databaseFromMongoUrl, mongoDatabaseName } from './index';

describe("MONGO_URL's database", () => {
  it.each([
    ['mongodb://host/myapp', 'myapp'],
    ['mongodb://user:p%40ss@host:27017/myapp?replicaSet=rs0', 'myapp'],
    ['mongodb://a:1,b:2,c:3/orders?authSource=admin', 'orders'],
    ['mongodb+srv://cluster0.example.net/app%2Dprod?retryWrites=true', 'app-prod'],
    ['mongodb://host/', undefined],
    ['mongodb://host', undefined],
    ['mongodb://host/?replicaSet=rs0', undefined],
  ])('%s names %s', (url, database) => {
    expect(databaseFromMongoUrl(url)).toBe(database);
  });

  it('is used unless MONGO_DB overrides it; berth when neither names one', () => {
    expect(mongoDatabaseName({ MONGO_URL: 'mongodb://host/myapp' })).toBe('myapp');
    expect(mongoDatabaseName({ MONGO_URL: 'mongodb://host/myapp', MONGO_DB: 'other' })).toBe('other');
    expect(mongoDatabaseName({ MONGO_URL: 'mongodb://host:27017/?replicaSet=rs0' })).toBe('berth');
  });
});
